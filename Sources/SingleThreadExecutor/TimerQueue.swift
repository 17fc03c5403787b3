/// Items waiting for a deadline, earliest first: a binary min-heap on (deadline, arrival), so two
/// items due at the same instant come out in the order they went in.
///
/// Generic over the item so it can be tested with plain values; the executor stores jobs in it.
struct TimerQueue<Item> {
    private struct Entry {
        var deadline: Int64
        var arrival: UInt64
        var item: Item

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : arrival < other.arrival
        }
    }

    private var heap: [Entry] = []
    private var arrivals: UInt64 = 0

    var count: Int { heap.count }
    var isEmpty: Bool { heap.isEmpty }

    /// The earliest deadline waiting, if any.
    var earliestDeadline: Int64? { heap.first?.deadline }

    mutating func insert(_ item: Item, deadline: Int64) {
        heap.append(Entry(deadline: deadline, arrival: arrivals, item: item))
        arrivals &+= 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest item if its deadline is at or before `now`.
    mutating func popDue(now: Int64) -> Item? {
        guard let first = heap.first, first.deadline <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first.item
    }

    /// Removes and returns the first item (in heap order, not deadline order) that `matches`:
    /// a cancelled sleep leaves the queue at once instead of waiting for its deadline.
    mutating func remove(where matches: (Item) -> Bool) -> Item? {
        guard let index = heap.firstIndex(where: { matches($0.item) }) else { return nil }
        let removed = heap[index].item
        let last = heap.removeLast()
        if index < heap.count {
            heap[index] = last
            siftUp(index)
            siftDown(index)
        }
        return removed
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
