/// The direction of a sort.
public enum StoreSortOrder: Sendable, Hashable {
    /// Smallest first.
    case ascending
    /// Largest first.
    case descending
}

/// A query on a store: which records, in which order, how many.
///
/// Build one with `filter(where:)` and refine it; it reads the store when it runs (<doc:StoresAndQueries#Queries>).
public struct StoreQuery<Base: Store> {
    public typealias Object = Base.Object

    // The query is inlinable so that it is specialized for the record type where it is used: generic code reads
    // key paths through the runtime, several times slower than the direct reads of a specialized one.
    @usableFromInline let store: Base
    @usableFromInline var filters: [StoreFilter<Object>]
    /// Each sort, given all the records and some of their positions, returns those positions in its order, stably.
    @usableFromInline var sorts: [@Sendable ([Object], [Int]) -> [Int]] = []
    @usableFromInline var limitCount: Int?
    @usableFromInline var offsetCount = 0

    @inlinable
    init(store: Base, filter: StoreFilter<Object>) {
        self.store = store
        filters = [filter]
    }

    /// Keeps only the records that `filter` keeps too.
    @inlinable
    public func filter(where filter: StoreFilter<Object>) -> Self {
        changing { $0.filters.append(filter) }
    }

    /// Sorts by the value at `keyPath`; a later sort orders the records this one finds equal, and records equal
    /// under every sort keep their stored order.
    @inlinable
    public func sorted<Value: Comparable & Sendable>(
        by keyPath: KeyPath<Object, Value> & Sendable,
        inOrder order: StoreSortOrder = .ascending
    ) -> Self {
        changing { $0.sorts.append(FieldReader(keyPath).sort(order)) }
    }

    /// Returns at most `count` records.
    @inlinable
    public func limit(_ count: Int) -> Self {
        precondition(count >= 0, "A query's limit cannot be negative")
        return changing { $0.limitCount = count }
    }

    /// Skips the first `count` records.
    @inlinable
    public func offset(_ count: Int) -> Self {
        precondition(count >= 0, "A query's offset cannot be negative")
        return changing { $0.offsetCount = count }
    }

    @inlinable
    func changing(_ change: (inout Self) -> Void) -> Self {
        var query = self
        change(&query)
        return query
    }

    // MARK: - Running

    /// The records the query selects, in its order.
    ///
    /// - Throws: ``PersistenceError`` if the store cannot be read, or what a `#Predicate` throws.
    @inlinable
    public func result() throws -> [Object] {
        try store.read { reader in
            let records = reader.all()
            return try selection(in: records, sorted: true).map { records[$0] }
        }
    }

    /// The first record the query selects, if any.
    @inlinable
    public func first() throws -> Object? {
        try limit(1).result().first
    }

    /// How many records the query selects.
    @inlinable
    public func count() throws -> Int {
        try store.read { try selection(in: $0.all(), sorted: false).count }
    }

    /// The positions of the records the query selects, after offset and limit; in stored order unless `sorted`.
    @inlinable
    func selection(in records: [Object], sorted: Bool) throws -> ArraySlice<Int> {
        let sorts = sorted ? sorts : []
        // Unsorted, the records past offset + limit are never needed, so the search stops there.
        let needed = sorts.isEmpty ? limitCount.map { offsetCount + $0 } : nil
        // The records are visited in place: copying each one out, as a `for` loop does, retains its references, a
        // quarter of the time on 100,000 records.
        var positions = try records.withUnsafeBufferPointer { records in
            try filters.withUnsafeBufferPointer { filters in
                var positions: [Int] = []
                visiting: for position in records.indices {
                    if let needed, positions.count >= needed { break }
                    for filter in filters.indices where try !filters[filter].test(records.baseAddress! + position) {
                        continue visiting
                    }
                    positions.append(position)
                }
                return positions
            }
        }
        // Stable sorts by the last key, then each earlier one, order by the first key and break its ties by the next.
        for sort in sorts.reversed() {
            positions = sort(records, positions)
        }
        return positions.dropFirst(offsetCount).prefix(limitCount ?? .max)
    }
}

extension StoreQuery: Sendable where Base: Sendable {}
