// The CSS linter `make lint` runs on docs/stylesheets (pinned in package-lock.json): the standard
// rules, so that a lost brace or an unknown property fails the test suite.
export default {
  extends: ["stylelint-config-standard"],
  rules: {
    // The manual's own classes carry the sgm- prefix (block__element--modifier); the others a rule
    // may name are Material's (md-) and the html element's no-js/js switch.
    "selector-class-pattern": [
      "^(sgm-[a-z0-9]+(-[a-z0-9]+)*(__[a-z0-9]+(-[a-z0-9]+)*)?(--[a-z0-9]+(-[a-z0-9]+)*)?|md-[a-z0-9_-]+|no-js|js|headerlink|highlight|admonition|arithmatex)$",
      { message: "a class of the manual is sgm-block__element--modifier" },
    ],
    // Material's custom properties (--md-default-fg-color--light) are named its way.
    "custom-property-pattern": ["^(sgm|md)-[a-z0-9-]+$"],
    // The rules are grouped by component, not by specificity.
    "no-descending-specificity": null,
  },
};
