// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title IToken
/// @notice The token calls the vaults and provisioners make (TestToken implements all of them;
/// `mint` is the devnet faucet the Morpho-like vault realises its simulated yield with).
interface IToken {
    function decimals() external view returns (uint8);
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function approve(address spender, uint256 amount) external returns (bool);
    function mint(address to, uint256 amount) external;
}
