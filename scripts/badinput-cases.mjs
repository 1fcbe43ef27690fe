// Prints the bad-input cases that have a PyTorch counterpart as JSON ([{ id, py }]) for
// scripts/badinput-fixtures.py:
//   node scripts/badinput-cases.mjs | .venv-torch/bin/python scripts/badinput-fixtures.py
import { makeCases } from "../tests/node/checks/badinput_cases.mjs";

const cases = makeCases().filter((c) => c.py);
process.stdout.write(JSON.stringify(cases.map(({ id, py }) => ({ id, py }))));
