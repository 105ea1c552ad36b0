"""The model answer of {{TITLE}}: the functions the harness calls, no program."""

values = []
capacity = 0


def init(c):
    global capacity
    capacity = c
    values.clear()


def push(value):
    if len(values) == capacity:
        return False
    values.append(value)
    return True


def pop():
    return values.pop() if values else None


def size():
    return len(values)
