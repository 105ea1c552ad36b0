"""A correct example, written differently from the reference (a list and a count), that
prints as it works (what a hand-in prints is not judged) and keeps its own tests under
`if __name__ == "__main__":` (left out when the harness imports it)."""

stack = [0] * 100
count = 0
limit = 0


def init(capacity):
    global count, limit
    count, limit = 0, capacity


def push(value):
    global count
    if count >= limit:
        return False
    print("pushing", value)
    stack[count] = value
    count += 1
    return True


def pop():
    global count
    if count == 0:
        return None
    count -= 1
    return stack[count]


def size():
    return count


if __name__ == "__main__":
    init(int(input("capacity? ")))
    print(push(1), push(2), pop(), size())
