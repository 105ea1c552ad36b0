//! A buggy example: the full test is off by one, so a full stack takes one value more.

pub struct Stack {
    values: Vec<i32>,
    capacity: usize,
}

impl Stack {
    pub fn new(capacity: usize) -> Stack {
        Stack { values: Vec::new(), capacity }
    }

    pub fn push(&mut self, value: i32) -> bool {
        if self.values.len() > self.capacity {
            return false;
        }
        self.values.push(value);
        true
    }

    pub fn pop(&mut self) -> Option<i32> {
        self.values.pop()
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }
}
