// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20Base} from "./ERC20Base.sol";
import {Owned} from "./Owned.sol";
import {IToken} from "./IToken.sol";

/// @title AeraLikeVault
/// @notice Aera v3's multi-depositor vault reduced to its ledger: units are an 18-decimal ERC-20;
/// only a provisioner the owner registered may `enter` (take tokens from `sender`, mint units
/// to `recipient`) or `exit` (burn `sender`'s units, pay tokens to `recipient`). The price of a
/// unit lives in the PriceAndFeeCalculator; the provisioner computes amounts from it. Units move
/// freely between wallets; a provisioner may move them without an allowance (it escrows units
/// for redeem requests that way), so the vault emits only Enter, Exit and Transfer.
contract AeraLikeVault is ERC20Base, Owned {
    event Enter(
        address indexed sender, address indexed recipient, address indexed token, uint256 tokenAmount, uint256 unitsAmount
    );
    event Exit(
        address indexed sender, address indexed recipient, address indexed token, uint256 tokenAmount, uint256 unitsAmount
    );

    mapping(address => bool) public isProvisioner;

    constructor(address owner_, string memory name_, string memory symbol_) ERC20Base(name_, symbol_) Owned(owner_) {}

    modifier onlyProvisioner() {
        require(isProvisioner[msg.sender], "not provisioner");
        _;
    }

    function decimals() public pure override returns (uint8) {
        return 18;
    }

    function setProvisioner(address provisioner, bool enabled) external onlyOwner {
        isProvisioner[provisioner] = enabled;
    }

    function enter(address sender, address token, uint256 tokenAmount, uint256 unitsAmount, address recipient)
        external
        onlyProvisioner
    {
        require(IToken(token).transferFrom(sender, address(this), tokenAmount), "transfer failed");
        _mint(recipient, unitsAmount);
        emit Enter(sender, recipient, token, tokenAmount, unitsAmount);
    }

    function exit(address sender, address token, uint256 tokenAmount, uint256 unitsAmount, address recipient)
        external
        onlyProvisioner
    {
        _burn(sender, unitsAmount);
        require(IToken(token).transfer(recipient, tokenAmount), "transfer failed");
        emit Exit(sender, recipient, token, tokenAmount, unitsAmount);
    }

    function _isTrustedSpender(address spender) internal view override returns (bool) {
        return isProvisioner[spender];
    }
}
