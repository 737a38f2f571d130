//! What both benches use.

/// A small, fast generator for picking actions (the engine's own speed is what is measured,
/// not a generator's).
pub struct XorShift(pub u64);

impl XorShift {
    /// Uniform enough in `0 … n − 1` for picking among legal actions.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}
