export { type Config, loadConfig, settingsFromArgs } from './config.js';
export { createServer, type Server } from './main.js';
