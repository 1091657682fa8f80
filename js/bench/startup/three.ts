import { REVISION } from "three";
console.log(`three r${REVISION}`);
