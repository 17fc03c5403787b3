/// How a mechanical switch bounces when its contacts close or open.
///
/// A burst is `edges` raw transitions spread evenly over `span`, the last one landing on the new
/// level. Landing there takes an odd number of transitions, so an even `edges` is rounded up by one;
/// 0 or 1 means a single clean edge.
public struct ChatterModel: Hashable, Sendable {
    public var edges: Int
    public var span: Duration

    public init(edges: Int, span: Duration) {
        precondition(edges >= 0, "a chatter burst cannot have a negative number of edges")
        precondition(span >= .zero, "a chatter burst cannot have a negative span")
        self.edges = edges
        self.span = span
    }

    /// A perfect switch: one edge per change.
    public static let none = ChatterModel(edges: 1, span: .zero)
    /// A cheap tactile switch: about 20 bounces within 5 ms.
    public static let typical = ChatterModel(edges: 20, span: .milliseconds(5))

    /// The raw levels and their offsets from the start of a burst that moves the line to `level`.
    public func burst(to level: Bool) -> [(level: Bool, offset: Duration)] {
        let count = edges <= 1 ? 1 : (edges.isMultiple(of: 2) ? edges + 1 : edges)
        guard count > 1 else { return [(level, .zero)] }
        let step = span / (count - 1)
        return (0..<count).map { index in
            // Transitions alternate starting at the new level; odd count → the last is the new level.
            (index.isMultiple(of: 2) ? level : !level, index == count - 1 ? span : step * index)
        }
    }
}
