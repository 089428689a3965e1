rchar: 89906678223
wchar: 5982
syscr: 686123
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
