#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A condition on records, written with key paths: `\.rating == .PG_13 && \.budget >= 10_000_000`.
///
/// Compare a key path with a value, combine with `&&`, `||` and `!`, as <doc:StoresAndQueries#Queries> shows.
public struct StoreFilter<Object>: Sendable {
    // Inlinable, like the query, and testing a record where it lies, so that a field is read without a copy.
    @usableFromInline let test: @Sendable (UnsafePointer<Object>) throws -> Bool

    /// A filter that keeps the records for which `test` returns `true`.
    @inlinable
    public init(_ test: @escaping @Sendable (Object) throws -> Bool) {
        self.test = { try test($0.pointee) }
    }

    /// A filter that evaluates a Foundation predicate.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    public init(_ predicate: Predicate<Object>) {
        test = { try predicate.evaluate($0.pointee) }
    }

    @inlinable
    init(testingInPlace test: @escaping @Sendable (UnsafePointer<Object>) throws -> Bool) {
        self.test = test
    }
}

// MARK: - Comparing a key path with a value

/// Keeps the records whose value at `keyPath` equals `value`.
@inlinable
public func == <Object, Value: Equatable & Sendable>(
    keyPath: KeyPath<Object, Value> & Sendable, value: Value
) -> StoreFilter<Object> {
    StoreFilter(testingInPlace: { [field = FieldReader(keyPath)] in field.read(at: $0) == value })
}

/// Keeps the records whose value at `keyPath` differs from `value`.
@inlinable
public func != <Object, Value: Equatable & Sendable>(
    keyPath: KeyPath<Object, Value> & Sendable, value: Value
) -> StoreFilter<Object> {
    StoreFilter(testingInPlace: { [field = FieldReader(keyPath)] in field.read(at: $0) != value })
}

/// Keeps the records whose value at `keyPath` is less than `value`.
@inlinable
public func < <Object, Value: Comparable & Sendable>(
    keyPath: KeyPath<Object, Value> & Sendable, value: Value
) -> StoreFilter<Object> {
    StoreFilter(testingInPlace: { [field = FieldReader(keyPath)] in field.read(at: $0) < value })
}

/// Keeps the records whose value at `keyPath` is less than or equal to `value`.
@inlinable
public func <= <Object, Value: Comparable & Sendable>(
    keyPath: KeyPath<Object, Value> & Sendable, value: Value
) -> StoreFilter<Object> {
    StoreFilter(testingInPlace: { [field = FieldReader(keyPath)] in field.read(at: $0) <= value })
}

/// Keeps the records whose value at `keyPath` is greater than `value`.
@inlinable
public func > <Object, Value: Comparable & Sendable>(
    keyPath: KeyPath<Object, Value> & Sendable, value: Value
) -> StoreFilter<Object> {
    StoreFilter(testingInPlace: { [field = FieldReader(keyPath)] in field.read(at: $0) > value })
}

/// Keeps the records whose value at `keyPath` is greater than or equal to `value`.
@inlinable
public func >= <Object, Value: Comparable & Sendable>(
    keyPath: KeyPath<Object, Value> & Sendable, value: Value
) -> StoreFilter<Object> {
    StoreFilter(testingInPlace: { [field = FieldReader(keyPath)] in field.read(at: $0) >= value })
}

// MARK: - Combining filters

/// Keeps the records that both filters keep; `rhs` is tested only when `lhs` keeps the record.
@inlinable
public func && <Object>(lhs: StoreFilter<Object>, rhs: StoreFilter<Object>) -> StoreFilter<Object> {
    StoreFilter(testingInPlace: { try lhs.test($0) && rhs.test($0) })
}

/// Keeps the records that either filter keeps; `rhs` is tested only when `lhs` does not keep the record.
@inlinable
public func || <Object>(lhs: StoreFilter<Object>, rhs: StoreFilter<Object>) -> StoreFilter<Object> {
    StoreFilter(testingInPlace: { try lhs.test($0) || rhs.test($0) })
}

/// Keeps the records that `filter` does not keep.
@inlinable
public prefix func ! <Object>(filter: StoreFilter<Object>) -> StoreFilter<Object> {
    StoreFilter(testingInPlace: { try !filter.test($0) })
}
