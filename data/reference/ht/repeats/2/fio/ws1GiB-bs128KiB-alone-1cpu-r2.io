rchar: 51728722929
wchar: 13663
syscr: 394879
syscw: 5
read_bytes: 1556480
write_bytes: 8192
cancelled_write_bytes: 0
