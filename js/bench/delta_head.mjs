// When a state delta left the server, read from the head of its message
// alone (the body is never parsed, so a reader with thousands of sockets
// keeps up); undefined for any other message.
const HEAD = /"method":"state\/delta","params":\{"tick":\d+,"sentAt":([\d.]+)/;

export function deltaSentAt(data) {
  const m = HEAD.exec(data.toString("utf8", 0, 120));
  return m ? Number(m[1]) : undefined;
}
