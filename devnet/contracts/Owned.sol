// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Owned
/// @notice One fixed owner per contract: the devnet deployer. No transfer and no event, so the
/// only logs our contracts emit are the ones the indexer decodes (DESIGN §6.1).
abstract contract Owned {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "Owned: not owner");
        _;
    }
}
