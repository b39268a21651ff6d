#!/usr/bin/python3
"""Prints Nova's versioned notifications as they arrive, one JSON object a line (the oslo.messaging
envelope unpacked, _context_* keys dropped), for tests and debugging:

  notifications.py AMQP_URL [SECONDS]

Binds its own exclusive, auto-deleted queue to the topic exchange `nova` with routing key
`versioned_notifications.#`, so it neither steals nor piles up the messages of any other consumer.
Prints `listening` once bound; stops after SECONDS (default 300).
"""
import json
import socket
import sys
import time

import kombu

url, seconds = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 300.0
deadline = time.monotonic() + seconds


def on_message(body, message):
    try:
        data = json.loads(body) if isinstance(body, (str, bytes)) else body
        if isinstance(data, dict) and "oslo.message" in data:
            data = json.loads(data["oslo.message"])
        data = {k: v for k, v in data.items() if not k.startswith("_context_")}
    except ValueError:
        data = {"raw": str(body)}
    data["routing_key"] = message.delivery_info.get("routing_key")
    print(json.dumps(data), flush=True)
    message.ack()


with kombu.Connection(url) as conn:
    exchange = kombu.Exchange("nova", type="topic", durable=False)
    queue = kombu.Queue(exchange=exchange, routing_key="versioned_notifications.#", exclusive=True, auto_delete=True)
    with kombu.Consumer(conn, queues=[queue], callbacks=[on_message], accept=["json", "text/plain", "application/json"]):
        print("listening", flush=True)
        while time.monotonic() < deadline:
            try:
                conn.drain_events(timeout=1)
            except (socket.timeout, TimeoutError):
                pass
