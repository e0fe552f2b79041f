#!/usr/bin/env python3
"""SMTP sink for development and tests.

Accepts every message on SMTP_SINK_HOST:SMTP_SINK_PORT (default 127.0.0.1:2525) and appends it to
SMTP_SINK_FILE (default /tmp/hookcap-smtp-sink.jsonl) as one JSON line:
{"mail_from": ..., "rcpt_tos": [...], "data": "<the raw message>"}.

Needs aiosmtpd (Debian: python3-aiosmtpd, so run it with /usr/bin/python3).
"""
import json
import os
import signal

from aiosmtpd.controller import Controller


class JsonLinesSink:
    def __init__(self, path):
        self.path = path

    async def handle_DATA(self, server, session, envelope):
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": list(envelope.rcpt_tos),
            "data": envelope.content.decode("utf-8", errors="replace"),
        }
        # One write of one line to an O_APPEND file: readers never see half a message.
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return "250 Message accepted"


def main():
    host = os.environ.get("SMTP_SINK_HOST", "127.0.0.1")
    port = int(os.environ.get("SMTP_SINK_PORT", "2525"))
    path = os.environ.get("SMTP_SINK_FILE", "/tmp/hookcap-smtp-sink.jsonl")
    controller = Controller(JsonLinesSink(path), hostname=host, port=port, enable_SMTPUTF8=True)
    controller.start()
    print(f"smtp-sink: listening on {host}:{port}, writing {path}", flush=True)
    signal.sigwait({signal.SIGINT, signal.SIGTERM})
    controller.stop()


if __name__ == "__main__":
    main()
