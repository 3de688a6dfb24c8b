/** Version of the HTTP contract this server speaks; echoed in every body. */
export const BRIDGE_API_VERSION = '1.0';
/** Package version of this build. */
export const SERVER_VERSION = '0.1.0';
