"""A real oslo.messaging notification listener (Debian's python3-oslo.messaging) for the tests.

Usage: /usr/bin/python3 oslo-notification-listener.py TRANSPORT_URL EXCHANGE TOPIC
Prints {"ready": true} once it consumes, then one JSON line per notification it is handed; stops when
its stdin closes.
"""
import json
import sys
import threading

from oslo_config import cfg
import oslo_messaging


class Endpoint:
    def __init__(self):
        self.lock = threading.Lock()

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        line = json.dumps({'priority': 'INFO', 'ctxt': ctxt, 'publisher_id': publisher_id,
                           'event_type': event_type, 'payload': payload, 'metadata': metadata})
        with self.lock:
            sys.stdout.write(line + '\n')
            sys.stdout.flush()


def main():
    url, exchange, topic = sys.argv[1:4]
    conf = cfg.ConfigOpts()
    conf([], project='leasehold-test')
    transport = oslo_messaging.get_notification_transport(conf, url=url)
    targets = [oslo_messaging.Target(exchange=exchange, topic=topic)]
    listener = oslo_messaging.get_notification_listener(transport, targets, [Endpoint()], executor='threading')
    listener.start()
    print(json.dumps({'ready': True}), flush=True)
    for _ in sys.stdin:
        pass
    listener.stop()
    listener.wait()
    transport.cleanup()


main()
