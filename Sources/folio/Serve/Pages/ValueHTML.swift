import Foundation
import FolioStorage

/// Stored values as HTML, the way people read them: `nil` marked, dates as dates, numbers aligned,
/// relationships as links to the related records, long values cut with a link to the whole value.
struct ValueHTML {
    var storeName: String
    var store: Store
    var schema: SchemaInfo?

    /// The HTML of a value and whether it is a number (right-aligned in a table).
    struct Rendered {
        var html: String
        var isNumber = false
    }

    /// How many related records a cell names before it says "and N more".
    static let relatedShown = 5

    /// Renders `field` of a record of `entity`; a value longer than `limit` characters is cut, with a
    /// link to the page of the whole value.
    func render(_ value: JSONValue?, field: String, entity: String, id: Int64, limit: Int) -> Rendered {
        guard let value else { return Rendered(html: "") }
        let property = schema?.property(field, of: entity)
        if property?.isRelationship == true { return Rendered(html: related(value)) }
        switch value {
        case .null:
            return Rendered(html: "<span class=\"nil\">nil</span>")
        case .bool(let flag):
            return Rendered(html: flag ? "true" : "false")
        case .int(let number):
            if property?.isDate == true, let date = DateText.stored(value) { return Rendered(html: time(date)) }
            return Rendered(html: String(number), isNumber: true)
        case .double(let number):
            if property?.isDate == true, let date = DateText.stored(value) { return Rendered(html: time(date)) }
            return Rendered(html: ValueFormatting.formatDouble(number), isNumber: true)
        case .string(let text):
            if property?.isDate == true, let date = DateText.parse(text) { return Rendered(html: time(date)) }
            return Rendered(html: cut(text, limit: limit, link: ServeRoute.value(store: storeName, entity: entity, id: id, attribute: field).path))
        default:
            let text = ValueFormatting.json(value)
            let link = ServeRoute.value(store: storeName, entity: entity, id: id, attribute: field).path
            return Rendered(html: "<code>" + cut(text, limit: limit, link: link) + "</code>")
        }
    }

    /// A date as `2026-03-01 09:30:00 UTC` in a `<time>` element.
    func time(_ date: Date) -> String {
        "<time datetime=\"\(DateText.iso(date))\">\(HTMLEscaping.escape(DateText.format(date)))</time>"
    }

    /// Escaped text, cut after `limit` characters with a link saying how many more there are.
    func cut(_ text: String, limit: Int, link: String) -> String {
        let (shown, remaining) = HTMLEscaping.truncated(text, to: limit)
        guard remaining > 0 else { return HTMLEscaping.escape(shown) }
        return HTMLEscaping.escape(shown) + "… " + PageLayout.link(link, "\(remaining) more characters", className: "more")
    }

    /// Links to the records a relationship value names.
    func related(_ value: JSONValue) -> String {
        if value.isNull { return "<span class=\"nil\">nil</span>" }
        let targets = RelationshipValue.identifiers(value)
        if targets.isEmpty { return "<span class=\"dim\">none</span>" }
        var parts = targets.prefix(Self.relatedShown).map(recordLink)
        if targets.count > Self.relatedShown { parts.append("<span class=\"dim\">and \(targets.count - Self.relatedShown) more</span>") }
        return parts.joined(separator: ", ")
    }

    /// A link to a record, labelled with its entity, identifier and name or title.
    func recordLink(_ id: Int64) -> String {
        guard let record = store.record(id: id) else { return "\(id) <span class=\"error\">(missing)</span>" }
        return recordLink(record)
    }

    func recordLink(_ record: StoredRecord) -> String {
        var text = "\(record.entity) \(record.id)"
        if let label = SchemaInfo.label(of: record) { text += " “\(HTMLEscaping.truncated(label, to: 40).text)”" }
        return PageLayout.link(ServeRoute.record(store: storeName, entity: record.entity, id: record.id).path, text)
    }
}
