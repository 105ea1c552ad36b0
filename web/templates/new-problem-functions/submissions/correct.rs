//! A correct example, written differently from the reference (a fixed array and a count),
//! that prints as it works: what a hand-in prints is not judged.

pub struct Stack {
    items: [i32; 100],
    count: usize,
    capacity: usize,
}

impl Stack {
    pub fn new(capacity: usize) -> Stack {
        Stack { items: [0; 100], count: 0, capacity }
    }

    pub fn push(&mut self, value: i32) -> bool {
        if self.count >= self.capacity {
            return false;
        }
        println!("pushing {value}");
        self.items[self.count] = value;
        self.count += 1;
        true
    }

    pub fn pop(&mut self) -> Option<i32> {
        if self.count == 0 {
            return None;
        }
        self.count -= 1;
        Some(self.items[self.count])
    }

    pub fn len(&self) -> usize {
        self.count
    }
}
