/// The page's script and style, served by the binary itself: the page loads nothing from
/// anywhere else. Their text is in `app.js` and `style.css` beside this file, compiled into the
/// binary by the package's `embedInCode` rule, so no resource bundle need be installed.
enum Assets {
    /// The pages' script: draws the run page's graph and timeline from its data, follows a
    /// running run's events, searches a job's output. Sets text only with `textContent`.
    static let script = String(decoding: PackageResources.app_js, as: UTF8.self)

    /// The pages' style: status colours as classes (the policy forbids style attributes).
    static let style = String(decoding: PackageResources.style_css, as: UTF8.self)
}
