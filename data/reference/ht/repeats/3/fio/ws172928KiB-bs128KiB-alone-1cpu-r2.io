rchar: 45513419748
wchar: 13663
syscr: 347458
syscw: 5
read_bytes: 241664
write_bytes: 32768
cancelled_write_bytes: 0
