package enginetest

// DishDMN is a DMN file of two decisions: "season" (a table of the
// input month) and "dish" (FIRST hit policy, of the season it requires and
// the input guests), with a decision requirements graph "dishes".
const DishDMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" xmlns:camunda="http://camunda.org/schema/1.0/dmn" id="dishes" name="Dishes" namespace="test">
  <decision id="season" name="Season">
    <decisionTable id="st">
      <input id="month" label="Month"><inputExpression typeRef="integer"><text>month</text></inputExpression></input>
      <output id="so" name="season" typeRef="string"/>
      <rule id="winter"><inputEntry><text>12,1,2</text></inputEntry><outputEntry><text>"Winter"</text></outputEntry></rule>
      <rule id="summer"><inputEntry><text>[6..8]</text></inputEntry><outputEntry><text>"Summer"</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="dish" name="Dish">
    <informationRequirement><requiredDecision href="#season"/></informationRequirement>
    <decisionTable id="dt" hitPolicy="FIRST">
      <input id="s" label="Season"><inputExpression typeRef="string"><text>season</text></inputExpression></input>
      <input id="g" label="Guests"><inputExpression typeRef="integer"><text>guests</text></inputExpression></input>
      <output id="dishOut" label="Dish" name="dish" typeRef="string"/>
      <rule id="r1"><inputEntry><text>"Winter"</text></inputEntry><inputEntry><text>&lt;= 8</text></inputEntry><outputEntry><text>"Spareribs"</text></outputEntry></rule>
      <rule id="r2"><inputEntry><text>"Summer"</text></inputEntry><inputEntry><text>-</text></inputEntry><outputEntry><text>"Salad"</text></outputEntry></rule>
      <rule id="r3"><inputEntry><text>-</text></inputEntry><inputEntry><text>-</text></inputEntry><outputEntry><text>"Stew"</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>`
