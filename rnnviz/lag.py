"""`python -m rnnviz.lag`: see `rnnviz.lessons.lag`."""
from rnnviz.lessons.lag import main

if __name__ == "__main__":
    raise SystemExit(main())
