# An example of a correct submission: it passes every test.
line = input().split()
if len(line) == 0:
    print("empty")
else:
    largest = int(line[0])
    for word in line[1:]:
        if int(word) > largest:
            largest = int(word)
    print(largest)
