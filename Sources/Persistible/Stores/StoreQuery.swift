import Foundation

/// The direction of a sort.
public enum StoreSortOrder: Sendable, Hashable {
    /// Smallest first.
    case ascending
    /// Largest first.
    case descending
}

/// A query on a store: which records, in which order, how many.
///
/// Build one with `filter(where:)` and refine it; nothing is read until one of
/// ``result()-6rszv``, ``first()-9esbr`` or ``count()-5kmyj`` runs it against the store as it is then.
///
/// ```swift
/// let films = try store.filter(where: \.rating == .PG_13 && \.budget >= 10_000_000)
///     .sorted(by: \.budget, inOrder: .descending)
///     .sorted(by: \.title)
///     .limit(10)
///     .result()
/// ```
public struct StoreQuery<Base: Store> {
    public typealias Object = Base.Object

    // The query is inlinable so that it is specialized for the record type where it is used: generic code reads
    // key paths through the runtime, several times slower than the direct reads of a specialized one.
    @usableFromInline let store: Base
    @usableFromInline var filters: [StoreFilter<Object>]
    @usableFromInline var sorts: [StoreSort<Object>] = []
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
        var query = self
        query.filters.append(filter)
        return query
    }

    /// Sorts by the value at `keyPath`; a later sort orders the records this one finds equal, and records equal
    /// under every sort keep their stored order.
    @inlinable
    public func sorted<Value: Comparable & Sendable>(
        by keyPath: KeyPath<Object, Value> & Sendable,
        inOrder order: StoreSortOrder = .ascending
    ) -> Self {
        var query = self
        query.sorts.append(StoreSort(keyPath, order))
        return query
    }

    /// Returns at most `count` records.
    @inlinable
    public func limit(_ count: Int) -> Self {
        precondition(count >= 0, "A query's limit cannot be negative")
        var query = self
        query.limitCount = count
        return query
    }

    /// Skips the first `count` records.
    @inlinable
    public func offset(_ count: Int) -> Self {
        precondition(count >= 0, "A query's offset cannot be negative")
        var query = self
        query.offsetCount = count
        return query
    }

    // MARK: - Running

    /// The records the query selects, in its order.
    ///
    /// - Throws: ``PersistenceError`` if the store cannot be read, or what a `#Predicate` throws.
    @inlinable
    public func result() throws -> [Object] {
        try store.read { try apply(to: $0.all()) }
    }

    /// The first record the query selects, if any.
    @inlinable
    public func first() throws -> Object? {
        try limit(1).result().first
    }

    /// How many records the query selects.
    @inlinable
    public func count() throws -> Int {
        guard sorts.isEmpty else { return try result().count }
        return try store.read { reader in
            // Past offset + limit, matches change nothing, so the search stops there.
            let matching = try matchingPositions(in: reader.all(), upTo: limitCount.map { offsetCount + $0 }).count
            let available = max(0, matching - offsetCount)
            return limitCount.map { min($0, available) } ?? available
        }
    }

    /// The positions of the records that every filter keeps, in stored order.
    ///
    /// The records are visited in place: copying each one out, as a `for` loop over the array does, retains its
    /// strings and other references, and on 100,000 decoded records that measured a quarter of the query's time.
    @inlinable
    func matchingPositions(in records: [Object], upTo needed: Int? = nil) throws -> [Int] {
        try records.withUnsafeBufferPointer { records in
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
    }

    @inlinable
    func apply(to records: [Object]) throws -> [Object] {
        guard !sorts.isEmpty else {
            // Without a sort, the records past offset + limit are never needed.
            let positions = try matchingPositions(in: records, upTo: limitCount.map { offsetCount + $0 })
            return page(positions[...]).map { records[$0] }
        }
        // The positions of the matching records are sorted, and the records copied once, in their final order.
        var positions = try matchingPositions(in: records)
        if let only = sorts.first, sorts.count == 1 {
            positions = only.sortedPositions(records, positions)
        } else {
            // Each key is read once per record. The standard sort is stable: records that no key orders keep their
            // stored order.
            let precedes = sorts.map { $0.precedes(records) }
            let last = precedes.count - 1
            positions.sort { lhs, rhs in
                for (index, precede) in precedes.enumerated() {
                    if precede(lhs, rhs) { return true }
                    if index == last || precede(rhs, lhs) { return false }
                }
                return false
            }
        }
        return page(positions[...]).map { records[$0] }
    }

    /// The part of `selected` that offset and limit leave.
    @inlinable
    func page<Element>(_ selected: ArraySlice<Element>) -> [Element] {
        let start = min(offsetCount, selected.count)
        let end = limitCount.map { min(start + $0, selected.count) } ?? selected.count
        return Array(selected.dropFirst(start).prefix(end - start))
    }
}

extension StoreQuery: Sendable where Base: Sendable {}

/// One sort of a query, by the value at a key path.
@usableFromInline
struct StoreSort<Object>: Sendable {
    /// Given all the records, whether the record at one position comes before the record at another. Each key is
    /// read once, when the comparison is made.
    @usableFromInline let precedes: @Sendable ([Object]) -> (Int, Int) -> Bool
    /// Given all the records and some positions, those positions in this sort's order; stable.
    @usableFromInline let sortedPositions: @Sendable ([Object], [Int]) -> [Int]

    @inlinable
    init<Value: Comparable & Sendable>(_ keyPath: KeyPath<Object, Value> & Sendable, _ order: StoreSortOrder) {
        let field = FieldReader(keyPath)
        let ascending = order == .ascending
        precedes = { records in
            let keys = records.withUnsafeBufferPointer { records in
                records.indices.map { field.read(at: records.baseAddress! + $0) }
            }
            return ascending ? { keys[$0] < keys[$1] } : { keys[$1] < keys[$0] }
        }
        sortedPositions = { records, positions in
            // Keys beside their positions: the sort compares neighbours in memory, not keys scattered elsewhere.
            var keyed = records.withUnsafeBufferPointer { records in
                positions.map { (key: field.read(at: records.baseAddress! + $0), position: $0) }
            }
            if ascending {
                keyed.sort { $0.key < $1.key }
            } else {
                keyed.sort { $1.key < $0.key }
            }
            return keyed.map(\.position)
        }
    }
}
