// When a state delta left the server, read from the head of its message
// alone (the body is never parsed, so a reader with thousands of sockets
// keeps up); undefined for any other message. Binary messages are the
// binary encoding's (docs/mcp-protocol.md): "LD", version, kind 0 (a delta), and
// sentAt at byte 8.
const HEAD = /"method":"state\/delta","params":\{"tick":\d+,"sentAt":([\d.]+)/;

export function deltaSentAt(data, isBinary = false) {
  if (isBinary) return data[0] === 0x4c && data[1] === 0x44 && data[3] === 0 ? data.readDoubleLE(8) : undefined;
  const m = HEAD.exec(data.toString("utf8", 0, 120));
  return m ? Number(m[1]) : undefined;
}
