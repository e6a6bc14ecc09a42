import { benchPeers } from './peers.js';

console.log(JSON.stringify(await benchPeers(1), null, 1));
