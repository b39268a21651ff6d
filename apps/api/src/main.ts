/**
 * The API's entry. `npm run build` replaces the emitted main.js with one bundle of server.js and
 * everything it imports (scripts/bundle-apps.mjs): a start then reads one file instead of resolving
 * and compiling some 3,000. Built by tsc alone, this file loads server.js as it is, and works the same.
 */
import './server.js';
