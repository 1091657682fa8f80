import { WorldSession } from "limina";
const session = new WorldSession({ simulate: false });
console.log(`${session.registry.size} skills`);
