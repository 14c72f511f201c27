"""Formula rows (SS-6): an expression over a row's named inputs, evaluated by simpleeval (never
Python's eval). A formula is checked once, when its sheet is saved: only known names, whole-number
constants, + - * / // % **, comparisons, `a if test else b`, and min, max, abs; at most
MAX_LENGTH characters and MAX_OPERATORS operators; and evaluated over every combination of its
inputs' ranges, so no division by zero and no result out of bounds can happen during a game."""
from __future__ import annotations

import ast
import itertools
import math
from functools import lru_cache

from simpleeval import DEFAULT_OPERATORS, InvalidExpression, SimpleEval

from companion.platform.core.contract import Text, RuleError

MAX_LENGTH = 200
MAX_OPERATORS = 40
MAX_COMBINATIONS = 2000
MAX_POWER = 10
MAX_RESULT = 100_000
FUNCTIONS = {"min": min, "max": max, "abs": abs}
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}
_COMPARE = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
_UNARY = (ast.USub, ast.UAdd)


def _small_power(base, exponent):
    if not -MAX_POWER <= exponent <= MAX_POWER or abs(base) > MAX_RESULT:
        raise ArithmeticError(Text("a power this large"))
    return base ** exponent


_OPERATORS = {op: DEFAULT_OPERATORS[op] for op in (*_BINARY, *_COMPARE, *_UNARY)}
_OPERATORS[ast.Pow] = _small_power


class Formula:
    """A checked expression: `points(values)` -> whole points (a fraction is rounded down)."""

    def __init__(self, label: str, expression: str, names: tuple[str, ...]):
        self.label, self.expression, self.names = label, expression, names
        self._parsed = SimpleEval().parse(expression)

    def value(self, values: dict[str, int]):
        evaluator = SimpleEval(operators=_OPERATORS, functions=FUNCTIONS, names=dict(values))
        return evaluator.eval(self.expression, previously_parsed=self._parsed)

    def points(self, values: dict[str, int]) -> int:
        return math.floor(self.value(values))


def _refuse(label: str, why: str) -> RuleError:
    return RuleError("The formula of {label} {why}.", rule="SS-6", label=label, why=why)


def _check_leaf(node: ast.AST, label: str, names: tuple[str, ...]) -> None:
    if isinstance(node, ast.Name) and node.id not in names and node.id not in FUNCTIONS:
        raise _refuse(label, Text("uses {id!r}, which is not one of its inputs ({names})", id=node.id, names=', '.join(names)))
    if isinstance(node, ast.Constant) and (not isinstance(node.value, int) or isinstance(node.value, bool)
                                           or abs(node.value) > MAX_RESULT):
        raise _refuse(label, Text("may only hold whole numbers up to {max_result}, not {value}", max_result=MAX_RESULT,
                                   value=repr(node.value)[:80]))


def _is_operator(node: ast.AST) -> bool:
    if isinstance(node, ast.BinOp):
        return type(node.op) in _BINARY
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, _UNARY)
    if isinstance(node, ast.Compare):
        return all(isinstance(op, _COMPARE) for op in node.ops)
    return isinstance(node, ast.IfExp)


def _check_node(node: ast.AST, label: str, names: tuple[str, ...]) -> int:
    """1 for an operator, 0 otherwise; RuleError for anything a formula may not hold."""
    if isinstance(node, (ast.Name, ast.Constant)):
        _check_leaf(node, label, names)
        return 0
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
            raise _refuse(label, Text("may only call min, max and abs"))
        return 1
    if _is_operator(node):
        return 1
    if isinstance(node, (ast.Expression, ast.Load, *(_BINARY), *_COMPARE, *_UNARY)):
        return 0
    raise _refuse(label, Text("may only use numbers, its inputs, + - * / // % **, comparisons, "
                         "'a if test else b', min, max and abs"))


def _parsed(label: str, expression: str) -> ast.AST:
    if not isinstance(expression, str) or not expression.strip():
        raise _refuse(label, Text("is empty: write an expression over the row's inputs"))
    if len(expression) > MAX_LENGTH:
        raise _refuse(label, Text("is {count} characters long; at most {max_length} are allowed", count=len(expression), max_length=MAX_LENGTH))
    try:
        return ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError):
        raise _refuse(label, Text("is not a complete expression (check the brackets and operators)")) from None


def _every_combination(inputs) -> list[dict[str, int]]:
    ranges = [range(low, high + 1) for _name, low, high in inputs]
    return [dict(zip([name for name, _l, _h in inputs], values)) for values in itertools.product(*ranges)]


def _check_results(formula: Formula, inputs) -> None:
    for values in _every_combination(inputs):
        shown = ", ".join(f"{name} = {value}" for name, value in values.items())
        try:
            result = formula.value(values)
        except ZeroDivisionError:
            raise _refuse(formula.label, Text("divides by zero when {shown}", shown=shown)) from None
        except (ArithmeticError, InvalidExpression, TypeError, ValueError):
            raise _refuse(formula.label, Text("cannot be worked out when {shown}", shown=shown)) from None
        if isinstance(result, bool) or not isinstance(result, (int, float)) or not math.isfinite(result):
            raise _refuse(formula.label, Text("gives no number when {shown}", shown=shown))
        if abs(result) > MAX_RESULT:
            raise _refuse(formula.label, Text("gives {math} when {shown}; points stay within -{max_result} and {max_result}", math=math.floor(result), shown=shown, max_result=MAX_RESULT))


@lru_cache(maxsize=256)
def checked_formula(label: str, expression: str, inputs: tuple[tuple[str, int, int], ...]) -> Formula:
    """The formula, checked over every combination of its inputs (`(name, min, max)` each)."""
    names = tuple(name for name, _low, _high in inputs)
    tree = _parsed(label, expression)
    operators = sum(_check_node(node, label, names) for node in ast.walk(tree))
    if operators > MAX_OPERATORS:
        raise _refuse(label, Text("has {operators} operators; at most {max_operators} are allowed", operators=operators, max_operators=MAX_OPERATORS))
    combinations = math.prod(high - low + 1 for _name, low, high in inputs)
    if combinations > MAX_COMBINATIONS:
        raise RuleError("The inputs of {label} together allow {combinations} combinations; narrow their ranges to at most {max_combinations} so the formula can be checked.", rule="SS-6", label=label, combinations=combinations, max_combinations=MAX_COMBINATIONS)
    formula = Formula(label, expression.strip(), names)
    _check_results(formula, inputs)
    return formula
