// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20Base} from "./ERC20Base.sol";
import {IToken} from "./IToken.sol";

/// @title PlainERC4626Vault
/// @notice A plain EIP-4626 tokenized vault, no more: Deposit and Withdraw (and the share
/// token's Transfer and Approval) are its only events, and it has no owner, curator or fee.
/// Share math as OpenZeppelin's ERC4626 with a decimals offset (virtual shares), so shares have
/// 18 decimals whatever the asset's. Its yield arrives as asset tokens sent to it (the devnet's
/// keeper mints them in), which raises totalAssets and so the unit price, as a strategy's
/// returns would. Amounts on a devnet stay far below 2^128: plain checked `a * b / c`.
contract PlainERC4626Vault is ERC20Base {
    event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);
    event Withdraw(
        address indexed sender, address indexed receiver, address indexed owner, uint256 assets, uint256 shares
    );

    address public immutable asset;
    uint256 internal immutable VIRTUAL_SHARES;

    constructor(address asset_, string memory name_, string memory symbol_) ERC20Base(name_, symbol_) {
        asset = asset_;
        uint8 assetDecimals = IToken(asset_).decimals();
        VIRTUAL_SHARES = 10 ** (assetDecimals >= 18 ? 0 : 18 - assetDecimals);
    }

    function decimals() public pure override returns (uint8) {
        return 18;
    }

    function totalAssets() public view returns (uint256) {
        return IToken(asset).balanceOf(address(this));
    }

    function convertToShares(uint256 assets) public view returns (uint256) {
        return _toShares(assets, false);
    }

    function convertToAssets(uint256 shares) public view returns (uint256) {
        return _toAssets(shares, false);
    }

    function maxDeposit(address) external pure returns (uint256) {
        return type(uint256).max;
    }

    function maxMint(address) external pure returns (uint256) {
        return type(uint256).max;
    }

    function maxWithdraw(address holder) external view returns (uint256) {
        return _toAssets(balanceOf[holder], false);
    }

    function maxRedeem(address holder) external view returns (uint256) {
        return balanceOf[holder];
    }

    function previewDeposit(uint256 assets) external view returns (uint256) {
        return _toShares(assets, false);
    }

    function previewMint(uint256 shares) external view returns (uint256) {
        return _toAssets(shares, true);
    }

    function previewWithdraw(uint256 assets) external view returns (uint256) {
        return _toShares(assets, true);
    }

    function previewRedeem(uint256 shares) external view returns (uint256) {
        return _toAssets(shares, false);
    }

    function deposit(uint256 assets, address receiver) external returns (uint256 shares) {
        shares = _toShares(assets, false);
        require(shares != 0, "zero shares");
        _deposit(receiver, assets, shares);
    }

    function mint(uint256 shares, address receiver) external returns (uint256 assets) {
        assets = _toAssets(shares, true);
        _deposit(receiver, assets, shares);
    }

    function withdraw(uint256 assets, address receiver, address holder) external returns (uint256 shares) {
        shares = _toShares(assets, true);
        _withdraw(receiver, holder, assets, shares);
    }

    function redeem(uint256 shares, address receiver, address holder) external returns (uint256 assets) {
        assets = _toAssets(shares, false);
        _withdraw(receiver, holder, assets, shares);
    }

    function _deposit(address receiver, uint256 assets, uint256 shares) internal {
        require(IToken(asset).transferFrom(msg.sender, address(this), assets), "transfer failed");
        _mint(receiver, shares);
        emit Deposit(msg.sender, receiver, assets, shares);
    }

    function _withdraw(address receiver, address holder, uint256 assets, uint256 shares) internal {
        if (msg.sender != holder) _spendAllowance(holder, msg.sender, shares);
        _burn(holder, shares);
        require(IToken(asset).transfer(receiver, assets), "transfer failed");
        emit Withdraw(msg.sender, receiver, holder, assets, shares);
    }

    function _toShares(uint256 assets, bool roundUp) internal view returns (uint256) {
        return _mulDiv(assets, totalSupply + VIRTUAL_SHARES, totalAssets() + 1, roundUp);
    }

    function _toAssets(uint256 shares, bool roundUp) internal view returns (uint256) {
        return _mulDiv(shares, totalAssets() + 1, totalSupply + VIRTUAL_SHARES, roundUp);
    }

    function _mulDiv(uint256 a, uint256 b, uint256 c, bool roundUp) internal pure returns (uint256) {
        uint256 p = a * b;
        return roundUp ? (p + c - 1) / c : p / c;
    }
}
