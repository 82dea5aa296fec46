import sys
from pathlib import Path

# tests import helpers that sit beside them (golden.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
