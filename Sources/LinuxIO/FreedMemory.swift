import CLinuxSupport

/// glibc keeps the pages a thread's malloc arena has freed for that thread's next allocations;
/// a long-lived daemon whose start-up work (opening and migrating the store) peaks once would
/// hold them resident for its whole life. `malloc_trim(0)` hands every whole free page of every
/// arena back to the kernel (BENCHMARKS.md, "Memory").
public enum FreedMemory {
    /// Returns the pages malloc holds free to the kernel. True when any were returned.
    @discardableResult
    public static func returnToTheSystem() -> Bool {
        malloc_trim(0) == 1
    }
}
