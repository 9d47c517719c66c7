"""What every visitor gets alike (the sitemap and its files, the newest papers' feeds, a
category's first page), made once and kept while the catalog stays as it was.

A kept answer is tagged with the catalog's generation (`Catalog.generation`, raised by
every write transaction in any process or node: an ingest, a deletion) and given again
until the generation moves on; the generation is read at most once a second. One
request makes a missing answer while the others that want it wait for it, holding no
worker thread; once the catalog has changed, they get the answer from before until its
successor is made. The answers kept are bounded (`MAX_KEPT`, the least recently used
leave first).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Annotated, Any, Final, TypeVar, cast

import anyio.to_thread
from fastapi import Depends, Request, Response

T = TypeVar("T")

MAX_KEPT: Final = 256
# How long a generation read is taken to hold: a change shows within this.
GENERATION_TTL_S: Final = 1.0


class SharedPages:
    """Answers kept by key, each with the catalog generation it was made at."""

    def __init__(self, generation: Callable[[], int], ttl_s: float = GENERATION_TTL_S) -> None:
        self._read_generation = generation
        self._ttl_s = ttl_s
        self._generation: tuple[float, int] | None = None  # (read at, value)
        self._kept: OrderedDict[Hashable, tuple[int, Any]] = OrderedDict()
        self._making: dict[Hashable, asyncio.Future[Any]] = {}
        self.made = 0  # answers made, not found kept: what a test counts

    async def generation(self) -> int:
        now = time.monotonic()
        if self._generation is None or now - self._generation[0] > self._ttl_s:
            value = await anyio.to_thread.run_sync(self._read_generation)
            self._generation = (now, value)
        return self._generation[1]

    async def get(
        self, key: Hashable, make: Callable[[], T], keep: Callable[[T], bool] | None = None
    ) -> T:
        """The answer kept for `key` at the catalog's generation, else `make()`'s (run in a
        worker thread, once for every request that waits for it), kept unless `keep` says
        no (an answer that holds something passing)."""
        return (await self.made_at(key, make, keep))[1]

    async def made_at(
        self, key: Hashable, make: Callable[[], T], keep: Callable[[T], bool] | None = None
    ) -> tuple[int, T]:
        """`get`'s answer with the generation it was made at: an answer made from it may be
        kept under that."""
        generation = await self.generation()
        kept = self._kept.get(key)
        if kept is not None and kept[0] == generation:
            self._kept.move_to_end(key)
            return cast(tuple[int, T], kept)
        making = self._making.get(key)
        if making is not None:
            if kept is not None:
                return cast(tuple[int, T], kept)  # the one from before, while the next is made
            return cast(tuple[int, T], await asyncio.shield(making))
        return await self._make(key, generation, make, keep)

    async def _make(
        self,
        key: Hashable,
        generation: int,
        make: Callable[[], T],
        keep: Callable[[T], bool] | None,
    ) -> tuple[int, T]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._making[key] = future
        try:
            value = await anyio.to_thread.run_sync(make)
        except Exception as e:
            future.set_exception(e)
            future.exception()  # read here: no waiter may be there to read it
            raise
        except BaseException:
            future.cancel()
            raise
        finally:
            del self._making[key]
        self.made += 1
        made = (generation, value)
        if keep is None or keep(value):
            self._kept[key] = made
            self._kept.move_to_end(key)
            while len(self._kept) > MAX_KEPT:
                self._kept.popitem(last=False)
        future.set_result(made)
        return made


@dataclass(frozen=True)
class Written:
    """A page as it was sent, to be sent again: its body, type and headers."""

    body: bytes
    media_type: str
    headers: dict[str, str]

    @classmethod
    def of(cls, response: Response) -> Written:
        # What a response works out from its body is left for the next one to work out.
        own = {"content-length", "content-type"}
        headers = {k: v for k, v in response.headers.items() if k.lower() not in own}
        return cls(bytes(response.body), response.media_type or "", headers)

    def response(self) -> Response:
        return Response(self.body, media_type=self.media_type, headers=self.headers)


_LOCK = threading.Lock()


def _kept_on_app(request: Request, name: str) -> SharedPages:
    state = request.app.state
    with _LOCK:
        pages: SharedPages | None = getattr(state, name, None)
        if pages is None:
            catalog = state.services.index.catalog
            pages = SharedPages(catalog.generation)
            setattr(state, name, pages)
    return pages


def shared_pages(request: Request) -> SharedPages:
    """The app's kept answers for the whole site, made with its first request that wants one."""
    return _kept_on_app(request, "shared_pages")


def paper_pages(request: Request) -> SharedPages:
    """The app's kept paper pages: apart from the site's, so that readers of many papers
    never push the sitemap out."""
    return _kept_on_app(request, "paper_pages")


SharedPagesDep = Annotated[SharedPages, Depends(shared_pages)]
PaperPagesDep = Annotated[SharedPages, Depends(paper_pages)]
