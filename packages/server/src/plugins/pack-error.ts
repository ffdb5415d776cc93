/** What `svc plugin pack` refuses, in words for the plugin's author (the command exits 1 with it). */
export class PackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PackError';
  }
}
