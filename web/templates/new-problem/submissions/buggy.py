# An example of a buggy submission: it starts from 0, so a list of negative numbers
# gets 0 (bugrank shrinks that to the simplest such input: `-1`).
line = input().split()
largest = 0
for word in line:
    if int(word) > largest:
        largest = int(word)
if line:
    print(largest)
else:
    print("empty")
