/// A stack of plain values in storage of its own, for the scratch state a coder pushes and pops several times per
/// record (the encoder's open containers and member names): no copy-on-write check, no reference counting and no
/// bounds check per access, as an `Array` held in a class property costs. Its owner frees it
/// (``deallocate()``); an index must be below ``count``.
struct ScratchStack<Element: BitwiseCopyable> {
    /// The elements, ``count`` of them, in storage of `capacity`.
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    func deallocate() { base.deallocate() }

    @inline(__always)
    subscript(index: Int) -> Element {
        get { base[index] }
        nonmutating set { base[index] = newValue }
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Removes and returns the last element.
    @inline(__always)
    mutating func removeLast() -> Element {
        count -= 1
        return base[count]
    }

    /// Keeps the first `newCount` elements (at most ``count``).
    @inline(__always)
    mutating func truncate(to newCount: Int) { count = newCount }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
