// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20Base} from "./ERC20Base.sol";

/// @title TestToken
/// @notice A devnet ERC-20 with configurable decimals (USDC 6, WETH 18, cbBTC 8) and an open
/// faucet: anyone may mint, which is how wallets get funded and how the Morpho-like vault
/// realises its simulated yield. Never deploy outside a devnet.
contract TestToken is ERC20Base {
    uint8 private immutable _decimals;

    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20Base(name_, symbol_) {
        _decimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }
}
