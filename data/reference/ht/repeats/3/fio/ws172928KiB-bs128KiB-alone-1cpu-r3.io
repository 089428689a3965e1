rchar: 40473963492
wchar: 13661
syscr: 309010
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
