"""``python -m opsbrain``: the same as the ``opsbrain`` console script."""

from opsbrain.cli import main

if __name__ == "__main__":
    main()
