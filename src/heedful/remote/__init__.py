"""Remote robot policies over openpi's websocket protocol.

The wire protocol is openpi's (package `openpi-client`, never reimplemented here): on connect the server
sends a metadata dict; each request is an observation dict and each reply a dict with `actions` (H x D)
and `server_timing`; arrays travel as msgpack (`openpi_client.msgpack_numpy`, never pickle); a `str`
reply is the server's error traceback.

- `agent.RemoteAgent` (`--agent remote`): a tabletop controller that asks a policy server for action chunks;
- `link.PolicyLink`: openpi-client's `WebsocketClientPolicy` with connect / request timeouts and retries;
- `adapters`: per-policy observation / action adapters (LIBERO's keys built in);
- `server.PolicyServer` and `mirror.MirrorPolicy` (`heedful serve`): serve a built-in tabletop agent over
  the same protocol, as a test peer for clients.

Install: `pip install "heedful[remote]"` then `pip install --no-deps openpi-client` (its 0.1.2 release
declares numpy<2 and dm-tree, which the client code never needs).
"""
