"""Streamlit entry point: page config, then the playground UI (which never imports TensorFlow).

`streamlit run app.py` finds the `st.App` below and imports this module (as `app`) to serve it;
its lifespan starts the shared worker pool when the server starts, so the first visitor finds
warm workers, and the front door (playground/front_door/) holds every request and websocket
message to the per-client limits before Streamlit sees it, the HTTP API's /api/v1 routes
(playground/api/) included. Each page view runs this same file
as `__main__` (so does AppTest).
"""

from __future__ import annotations

import streamlit as st

if __name__ == "__main__":  # a page run
    st.set_page_config(page_title="tf.function playground", page_icon="🔁", layout="wide")

    from playground.ui import main

    main()
else:  # imported by `streamlit run` to find the ASGI app
    import contextlib
    import logging
    from collections.abc import AsyncIterator
    from typing import Any

    from starlette.middleware import Middleware

    from playground import api
    from playground.contract.config import settings
    from playground.front_door import heap, hosting
    from playground.front_door.middleware import DoorLimits, FrontDoor
    from playground.front_door.page_headers import PageHeaders
    from playground.runs import drain
    from playground.ui import code_box, inline_scripts

    @contextlib.asynccontextmanager
    async def _lifespan(_app: Any) -> AsyncIterator[None]:
        from playground.ui import run

        if not hosting.no_delay():  # the server's socket is bound by now
            logging.getLogger(__name__).warning(
                "no listening socket found for TCP_NODELAY: kept-alive answers may wait 40 ms"
            )
        run.warm_at_start()
        heap.freeze_startup_heap()  # full collections no longer walk what startup loaded
        drain.install(_settings.drain_s)  # SIGTERM: the Runs in flight first (runs/drain.py)
        yield
        drain.clean_up()  # however the server stops: nothing of the sandbox's is left

    _settings = settings()
    hosting.configure(_settings.allowed_origins)
    _limits = DoorLimits.from_settings(
        _settings, max_upload_bytes=int(st.get_option("server.maxUploadSize") * 1e6)
    )
    app = st.App(
        __file__,
        lifespan=_lifespan,
        routes=api.routes() + code_box.routes(),
        middleware=[
            Middleware(PageHeaders, inline_scripts=inline_scripts()),
            Middleware(
                FrontDoor, limits=_limits, preload=(code_box.preload() if _settings.editor != "plain" else ())
            ),
        ],
    )
