// The client's version, sent in its default User-Agent; test/client/package.test.ts keeps it
// equal to package.json's (the client reads no files, so it cannot look it up).
export const CLIENT_VERSION = '0.1.0';
