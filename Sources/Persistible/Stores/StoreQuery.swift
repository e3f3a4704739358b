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
/// ``result()``, ``first()`` or ``count()`` runs it against the store as it is then.
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

    let store: Base
    private var filters: [StoreFilter<Object>]
    private var comparators: [@Sendable (Object, Object) -> ComparisonResult] = []
    private var limitCount: Int?
    private var offsetCount = 0

    init(store: Base, filter: StoreFilter<Object>) {
        self.store = store
        filters = [filter]
    }

    /// Keeps only the records that `filter` keeps too.
    public func filter(where filter: StoreFilter<Object>) -> Self {
        var query = self
        query.filters.append(filter)
        return query
    }

    /// Sorts by the value at `keyPath`; a later sort orders the records this one finds equal.
    public func sorted<Value: Comparable & Sendable>(
        by keyPath: KeyPath<Object, Value> & Sendable,
        inOrder order: StoreSortOrder = .ascending
    ) -> Self {
        var query = self
        query.comparators.append(comparator(keyPath, order))
        return query
    }

    /// Returns at most `count` records.
    public func limit(_ count: Int) -> Self {
        precondition(count >= 0, "A query's limit cannot be negative")
        var query = self
        query.limitCount = count
        return query
    }

    /// Skips the first `count` records.
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
    public func result() throws -> [Object] {
        try store.read { try apply(to: $0.all()) }
    }

    /// The first record the query selects, if any.
    public func first() throws -> Object? {
        try limit(1).result().first
    }

    /// How many records the query selects.
    public func count() throws -> Int {
        guard comparators.isEmpty else { return try result().count }
        return try store.read { reader in
            let matching = try reader.all().count(where: matches)
            let available = max(0, matching - offsetCount)
            return limitCount.map { min($0, available) } ?? available
        }
    }

    private func matches(_ object: Object) throws -> Bool {
        for filter in filters where try !filter.test(object) { return false }
        return true
    }

    func apply(to records: [Object]) throws -> [Object] {
        var selected: [Object] = []
        // Without a sort, the records past offset + limit are never needed.
        let needed = comparators.isEmpty ? limitCount.map { offsetCount + $0 } : nil
        for record in records where try matches(record) {
            if let needed, selected.count >= needed { break }
            selected.append(record)
        }
        if !comparators.isEmpty {
            let comparators = comparators
            selected.sort { lhs, rhs in
                for compare in comparators {
                    let order = compare(lhs, rhs)
                    if order != .orderedSame { return order == .orderedAscending }
                }
                return false
            }
        }
        let start = min(offsetCount, selected.count)
        let end = limitCount.map { min(start + $0, selected.count) } ?? selected.count
        return start == 0 && end == selected.count ? selected : Array(selected[start..<end])
    }
}

extension StoreQuery: Sendable where Base: Sendable {}

/// Compares two records by the value at `keyPath`.
private func comparator<Object, Value: Comparable & Sendable>(
    _ keyPath: KeyPath<Object, Value> & Sendable,
    _ order: StoreSortOrder
) -> @Sendable (Object, Object) -> ComparisonResult {
    { lhs, rhs in
        let (left, right) = (lhs[keyPath: keyPath], rhs[keyPath: keyPath])
        if left == right { return .orderedSame }
        return (left < right) == (order == .ascending) ? .orderedAscending : .orderedDescending
    }
}
