"""The reference solution of {{TITLE}}: what every answer is compared with."""
import sys

numbers = [int(word) for word in sys.stdin.read().split()]
if numbers:
    print(max(numbers))
else:
    print("empty")
