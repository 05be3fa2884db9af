/** The library entry: run the mock in-process (listen on port 0, use the URL). */
export { createMockServer, DEFAULT_API_KEY, type MockServer, type MockServerOptions } from './server.js';
export { main as runCli } from './cli.js';
