import Foundation
import Folio

// An expense tracker: the context, fetch, history and observation API a typical app's view models
// use, apart from SwiftUI.

@Model
final class Expense {
    #Index<Expense>([\.category], [\.date])
    var title: String
    var amount: Double
    var category: String
    var date: Date
    var note: String?
    @Attribute(.preserveValueOnDeletion) var receiptNumber: String = ""
    @Transient var isExpanded = false

    init(title: String, amount: Double, category: String, date: Date) {
        self.title = title
        self.amount = amount
        self.category = category
        self.date = date
    }
}

/// Waits up to `seconds` for `condition`, letting other work on the main actor run.
@MainActor
func eventually(_ seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return condition()
}
