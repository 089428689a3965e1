rchar: 17282759618
wchar: 13661
syscr: 4219616
syscw: 5
read_bytes: 135168
write_bytes: 8192
cancelled_write_bytes: 0
