"""Build or refresh the full index (`.cache/full-index`): `bench/speed/full_index.py`, timed.

python -m bench.full_index
"""

from bench.speed.full_index import main

if __name__ == "__main__":
    main()
