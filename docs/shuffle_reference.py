#!/usr/bin/env python3
"""An independent re-implementation of the shuffle of docs/rules.md §9 (shuffle_version 1),
for third parties checking a deal. Standard library only; ChaCha20 written out from its
specification (64-bit block counter from 0, 64-bit nonce 0, as rand_chacha's ChaCha20Rng).

    python3 docs/shuffle_reference.py 000102...1f alice "" carol
prints the commitment, the first dealer and the first cards of hand 1.
"""
import hashlib
import struct
import sys


def chacha20_words(key: bytes):
    """Yields the ChaCha20 keystream as little-endian 32-bit words."""
    constants = struct.unpack("<4I", b"expand 32-byte k")
    key_words = struct.unpack("<8I", key)
    counter = 0
    mask = 0xFFFFFFFF

    def rotl(v, n):
        return ((v << n) & mask) | (v >> (32 - n))

    def quarter(s, a, b, c, d):
        s[a] = (s[a] + s[b]) & mask; s[d] = rotl(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & mask; s[b] = rotl(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & mask; s[d] = rotl(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & mask; s[b] = rotl(s[b] ^ s[c], 7)

    while True:
        state = list(constants) + list(key_words) + [counter & mask, counter >> 32, 0, 0]
        working = state[:]
        for _ in range(10):
            quarter(working, 0, 4, 8, 12); quarter(working, 1, 5, 9, 13)
            quarter(working, 2, 6, 10, 14); quarter(working, 3, 7, 11, 15)
            quarter(working, 0, 5, 10, 15); quarter(working, 1, 6, 11, 12)
            quarter(working, 2, 7, 8, 13); quarter(working, 3, 4, 9, 14)
        for w, s in zip(working, state):
            yield (w + s) & mask
        counter += 1


def uniform_below(words, bound):
    limit = 2**32 - (2**32 % bound)
    while True:
        x = next(words)
        if x < limit:
            return x % bound


def hand_seed(secret: bytes, client_seeds, hand: int) -> bytes:
    h = hashlib.sha256(secret)
    for seed in client_seeds:
        h.update(seed.encode("utf-8"))
    h.update(struct.pack(">I", hand))
    return h.digest()


def deck(decks=1, jokers=False):
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    cards = [r + s for _ in range(decks) for s in "CDHS" for r in ranks]
    return cards + (["JK"] * (2 * decks) if jokers else [])


def shuffled(secret, client_seeds, hand, decks=1, jokers=False):
    cards = deck(decks, jokers)
    words = chacha20_words(hand_seed(secret, client_seeds, hand))
    for i in range(len(cards) - 1, 0, -1):
        j = uniform_below(words, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def first_dealer(secret, client_seeds, players):
    return uniform_below(chacha20_words(hand_seed(secret, client_seeds, 0)), players)


if __name__ == "__main__":
    secret = bytes.fromhex(sys.argv[1]) if len(sys.argv) > 1 else bytes(range(32))
    seeds = sys.argv[2:] if len(sys.argv) > 2 else ["alice", "", "carol"]
    print("commitment  ", hashlib.sha256(secret).hexdigest())
    print("first dealer", first_dealer(secret, seeds, len(seeds)))
    print("hand 1      ", " ".join(shuffled(secret, seeds, 1)[:8]))
