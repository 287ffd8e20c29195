import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { bodyFormat, contentType, responseFormat } from './negotiate.js';

describe('responseFormat', () => {
  test('Accept naming XML gives XML whatever the body was', () => {
    for (const accept of ['text/xml', 'application/xml', 'xml', 'XML', 'Text/XML; charset=utf-8', 'application/xml, */*;q=0.1']) {
      assert.equal(responseFormat(accept, 'json'), 'xml', accept);
      assert.equal(responseFormat(accept, undefined), 'xml', accept);
    }
  });

  test('Accept naming only JSON does not override an XML body (HTTP libraries send it by default); without a body it gives JSON', () => {
    assert.equal(responseFormat('application/json, text/plain, */*', 'xml'), 'xml');
    assert.equal(responseFormat('application/json', 'xml'), 'xml');
    assert.equal(responseFormat('application/json', undefined), 'json');
  });

  test('otherwise the response follows the body format', () => {
    assert.equal(responseFormat(undefined, 'xml'), 'xml');
    assert.equal(responseFormat('', 'xml'), 'xml');
    assert.equal(responseFormat('*/*', 'xml'), 'xml');
    assert.equal(responseFormat('*/*', 'json'), 'json');
  });

  test('the default is JSON', () => {
    assert.equal(responseFormat(undefined, undefined), 'json');
    assert.equal(responseFormat('*/*', undefined), 'json');
    assert.equal(responseFormat('text/plain', undefined), 'json');
  });
});

describe('bodyFormat and contentType', () => {
  test('the content type decides, then the first character', () => {
    assert.equal(bodyFormat('text/xml', '{"Tra":{}}'), 'xml');
    assert.equal(bodyFormat('application/xml; charset=utf-8', ''), 'xml');
    assert.equal(bodyFormat('application/json', '<Tra/>'), 'json');
    assert.equal(bodyFormat(undefined, '  \n<Tra/>'), 'xml');
    assert.equal(bodyFormat('text/plain', '<Tra/>'), 'xml');
    assert.equal(bodyFormat(undefined, '{"Tra":{}}'), 'json');
  });

  test('content types of the answers', () => {
    assert.equal(contentType('xml'), 'text/xml; charset=utf-8');
    assert.equal(contentType('json'), 'application/json; charset=utf-8');
  });
});
