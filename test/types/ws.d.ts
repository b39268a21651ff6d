/** `ws` ships no types and @types/ws is not installed: the tests only hand its client class to graphql-ws. */
declare module 'ws' {
  const WebSocket: unknown;
  export default WebSocket;
}
