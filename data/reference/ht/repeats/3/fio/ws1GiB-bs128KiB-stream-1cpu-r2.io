rchar: 32868117457
wchar: 13662
syscr: 250982
syscw: 5
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
