"""Interop: the official Python SDK client (PyPI `mcp`) against examples/temperature.rs, the typed
API with schemas derived from Rust types (feature `schemars`). The SDK checks `structuredContent`
against the tool's `outputSchema` itself, so a derived schema it could not use fails here.

Usage: python_typed.py <path of the temperature example>  (it is run with --stdio)
"""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(example: str) -> None:
    async with stdio_client(StdioServerParameters(command=example, args=["--stdio"])) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            (tool,) = (await session.list_tools()).tools
            assert tool.input_schema["type"] == "object", tool.input_schema
            assert tool.input_schema["required"] == ["celsius"], tool.input_schema
            assert tool.output_schema["properties"]["fahrenheit"]["type"] == "number", tool.output_schema
            result = await session.call_tool("to_fahrenheit", {"celsius": 21.5, "round": True})
            assert not result.is_error and result.structured_content == {"fahrenheit": 71.0}, result
            assert result.content[0].text == '{"fahrenheit":71.0}', result
            result = await session.call_tool("to_fahrenheit", {"celsius": -300})
            assert result.is_error and result.content[0].text == "below absolute zero", result
            result = await session.call_tool("to_fahrenheit", {})
            assert result.is_error and "celsius" in result.content[0].text, result
    print("python-interop (typed): 4 passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
