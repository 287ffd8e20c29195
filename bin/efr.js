#!/usr/bin/env node
// The efr command runs the compiled build (npm ci builds it through the prepare script).
import '../dist/cli.js';
