export { createServer, type Server } from './main.js';
export { loadConfig, settingsFromArgs, type Config } from './config.js';
